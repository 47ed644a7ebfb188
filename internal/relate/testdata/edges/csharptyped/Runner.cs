namespace App.Run {
  using App.Validation;

  public class Runner {
    private readonly IValidator _validator;
    public IValidator Fallback { get; }

    public Runner(IValidator validator) {
      _validator = validator;
    }

    public int Go(object instance, string name) {
      _validator.ValidateAndThrow(instance);
      Fallback.Validate(instance);
      return name.CountWords();
    }
  }
}
