using System.Collections.Generic;

// An extension method called on a value, and optional parameters.
public static class Ext
{
    public static int Take(this List<int> xs, int n, bool strict = false)
    {
        return n;
    }
}

public class Pager
{
    public int Page(List<int> rows)
    {
        return rows.Take(10);
    }
}
