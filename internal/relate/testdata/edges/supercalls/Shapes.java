package shapes;

class Shape {
    void draw() {
        outline();
    }

    void outline() {
    }
}

class Circle extends Shape {
    @Override
    void draw() {
        super.draw();
        fill();
    }

    void fill() {
    }
}
