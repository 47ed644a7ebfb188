module App
  module Util
    module FreezeOnNew
      def new(...)
        super.freeze
      end
    end
  end
end
