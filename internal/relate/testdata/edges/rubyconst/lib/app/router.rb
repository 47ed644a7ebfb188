require 'set'

module App
  class Router
    def mount(path)
      normalized = App::Util::PathNormalizer.call(path)
      seen = Set.new
      seen.include?(normalized)
    end
  end
end
