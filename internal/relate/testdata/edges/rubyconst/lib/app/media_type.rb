module App
  class MediaType
    attr_reader :type

    def initialize(type)
      @type = type
    end

    def self.parse(text)
      raise ArgumentError, 'empty' if text.nil?
      new(text.strip)
    end
  end
end
