class Shape:
    def draw(self):
        return "shape"


class Square(Shape):
    def draw(self):
        base = super().draw()
        return base + " square"
