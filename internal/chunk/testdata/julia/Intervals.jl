"""
    Intervals

Closed intervals on the real line.
"""
module Intervals

using LinearAlgebra
import Base: show, length

export Interval, width, hull

abstract type AbstractInterval{T} end

"An interval `[lo, hi]`."
struct Interval{T<:Real} <: AbstractInterval{T}
    lo::T
    hi::T
    Interval(lo::T, hi::T) where {T} = lo <= hi ? new{T}(lo, hi) : error("empty interval")
end

mutable struct Counter
    n::Int
end

# the width of an interval; `end` in a comment does not close anything
width(x::Interval) = x.hi - x.lo

"""
    hull(a, b)

The smallest interval holding `a` and `b`.
"""
function hull(a::Interval, b::Interval)
    lo = min(a.lo, b.lo)
    hi = max(a.hi, b.hi)
    xs = [v for v in (lo, hi) if v >= lo]
    if isempty(xs)
        return a
    end
    Interval(xs[begin], xs[end])
end

function Base.show(io::IO, x::Interval)
    print(io, "[", x.lo, ", ", x.hi, "] end")
end

macro interval(lo, hi)
    return :(Interval($(esc(lo)), $(esc(hi))))
end

function count!(c::Counter, xs)
    foreach(xs) do x
        c.n += 1
    end
    c
end

end # module
