namespace App.Validation {
  public interface IValidator {
    Result Validate(object instance);
  }

  public class Result {
    public bool IsValid() { return true; }
  }

  public static class ValidatorExtensions {
    public static void ValidateAndThrow(this IValidator validator, object instance) {
      var result = validator.Validate(instance);
      if (!result.IsValid()) { throw new System.Exception(); }
    }

    public static int CountWords(this string text) {
      return text.Split(' ').Length;
    }
  }
}
