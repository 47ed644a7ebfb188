class App::Widget
  def initialize(name)
    @name = name
  end

  def self.build(name)
    new(name)
  end
end
