namespace Demo
{
    public class Rule
    {
        public static string Translate(string key)
        {
            return OtherLang.Translate(key) + this.Suffix();
        }

        private string Suffix() => ".";
    }

    public static class OtherLang
    {
        public static string Translate(string key) => key;
    }
}
