module App
  module Util
    module PathNormalizer
      def self.call(path)
        return '/' unless path
        path.squeeze('/').chomp('/')
      end
    end
  end
end
