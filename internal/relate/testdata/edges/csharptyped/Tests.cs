namespace App.Tests {
  using App.Validation;

  public class Person { }

  public abstract class AbstractValidator<T> : IValidator {
    public Result Validate(object instance) { return new Result(); }
  }

  public class TestValidator : AbstractValidator<Person> { }

  public class Tests {
    private class NestedValidator : AbstractValidator<Person> { }

    public void Run(Person p) {
      var nested = new NestedValidator();
      nested.Validate(p);
      var shared = new TestValidator();
      shared.ValidateAndThrow(p);
      var text = new System.Text.StringBuilder();
      text.Append("x");
      var cast = (TestValidator)Make();
      cast.Validate(p);
    }

    private object Make() { return null; }
  }

  public class OtherTests {
    private class TestValidator : AbstractValidator<Person> { }

    public void Go(Person p) {
      var local = new TestValidator();
      local.ValidateAndThrow(p);
    }
  }
}
