// circe cd16ce2, modules/core/shared/src/main/scala/io/circe/Decoder.scala lines 473-480, 600-635,
// 1268-1283 and a closing brace: implicit vals that hold instances are definitions

object Decoder
    extends DecoderDerivation
    with CollectionDecoders
    with TupleDecoders
    with ProductDecoders
    with LiteralDecoders
    with EnumerationDecoders
    with LowPriorityDecoders {
  /**
   * Create a `Decoder` which assumes one already exists
   *
   * Certain recursive data structures (particularly when generic) greatly benefit from
   * being able to be written this way. See `cats.Defer`
   *
   * Note: while a `Decoder` written using `Decoder.recursive` can prevent unneeded creation of
   * `Decoder` instances when recursing, the resulting `Decoder` cannot be guaranteed to be stack-safe.
   *
   * @group Utilities
   */
  final def recursive[A](fn: Decoder[A] => Decoder[A]): Decoder[A] = Defer[Decoder].fix(fn)

  /**
   * @group Decoding
   */
  implicit final val decodeHCursor: Decoder[HCursor] = new Decoder[HCursor] {
    final def apply(c: HCursor): Result[HCursor] = Right(c)
  }

  /**
   * @group Decoding
   */
  implicit final val decodeJson: Decoder[Json] = new Decoder[Json] {
    final def apply(c: HCursor): Result[Json] = Right(c.value)
  }

  /**
   * @group Decoding
   */
  implicit final val decodeJsonObject: Decoder[JsonObject] = new Decoder[JsonObject] {
    final def apply(c: HCursor): Result[JsonObject] = c.value.asObject match {
      case Some(v) => Right(v)
      case None    => Left(DecodingFailure(WrongTypeExpectation("object", c.value), c.history))
    }
  }

  private[this] abstract class StandardJavaTimeDecoder[A](name: String) extends JavaTimeDecoder[A](name) {
    protected[this] final def formatMessage(input: String, message: String): String = message
  }

  /**
   * @group Time
   */
  implicit final lazy val decodeDuration: Decoder[Duration] =
    new JavaTimeDecoder[Duration]("Duration") {
      protected[this] final def parseUnsafe(input: String): Duration = Duration.parse(input)

      // For some reason the error message for `Duration` does not contain the
      // input string by default.
      protected[this] final def formatMessage(input: String, message: String): String =
        s"Text '$input' cannot be parsed to a Duration"
    }
}
