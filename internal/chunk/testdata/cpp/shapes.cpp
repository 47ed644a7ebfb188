#include <memory>
#include <vector>
#include "shapes/shape.h"

namespace geo {

/// A drawable shape.
class Shape {
public:
    virtual ~Shape() = default;
    virtual double area() const = 0;
    void draw(Canvas &c) const {
        c.fill(outline());
    }
};

struct Circle : public Shape, private Named {
    explicit Circle(double r) : r_(r) {}
    double area() const override;
private:
    double r_;
};

double Circle::area() const {
    return kPi * r_ * r_;
}

template <typename T>
T clamp(T v, T lo, T hi) {
    return std::min(std::max(v, lo), hi);
}

std::unique_ptr<Shape> make_circle(double r) {
    auto c = std::make_unique<Circle>(r);
    c->validate();
    return c;
}

}  // namespace geo
