package chunk

import "testing"

// A Scala class whose extends clause ends a line and whose '{' opens the
// next one keeps its members (the grammar reads the body as a block of
// its own), and methods named by operators (~, ^^) are units.
func TestScalaDetachedBodyAndOperatorMethods(t *testing.T) {
	t.Parallel()
	src := `package p

class PagedSeq[T: ClassTag] protected(
  more: (Array[T], Int, Int) => Int,
  first1: Page[T])
extends scala.collection.AbstractSeq[T]
   with scala.collection.IndexedSeq[T]
   with ScalaVersionSpecificPagedSeq[T]
{
  def this(more: (Array[T], Int, Int) => Int) = this(more, new Page[T](0))

  private var current: Page[T] = first1

  def length: Int = {
    current.end
  }

  override def isDefinedAt(index: Int) =
    index >= 0 && index < length
}

abstract class Parser[+T] extends (Input => ParseResult[T]) {
  def ~ [U](q: => Parser[U]): Parser[T ~ U] = { lazy val p = q; seq(p) }
  def ^^ [U](f: T => U): Parser[U] = map(f)
}
`
	wantUnits(t, "PagedSeq.scala", src, "PagedSeq.length()", "PagedSeq.isDefinedAt(index: Int)", "Parser.~(q: => Parser[U])", "Parser.^^(f: T => U)")
}
