defmodule App.Backoff do
  @moduledoc "Retries a request with exponential backoff."

  alias App.Clock

  @spec run(fun(), keyword()) :: {:ok, term()} | {:error, term()}
  def run(fun, opts) do
    settings = %{
      delay: positive!(opts, :delay, 10),
      max_retries: positive!(opts, :max_retries, 3)
    }

    attempt(fun, settings, 0)
  end

  defp attempt(_fun, %{max_retries: max}, tries) when tries >= max, do: {:error, :exhausted}

  defp attempt(fun, settings, tries) do
    case fun.() do
      {:ok, value} ->
        {:ok, value}

      {:error, _} ->
        Clock.sleep(delay(settings.delay, tries))
        attempt(fun, settings, tries + 1)
    end
  end

  defp delay(base, tries), do: base * Integer.pow(2, tries) + :rand.uniform(base)

  defp positive!(opts, key, default) do
    value = Keyword.get(opts, key, default)
    if is_integer(value) and value > 0, do: value, else: raise(ArgumentError, "#{key} must be positive")
  end

  # Kernel's to_string, though App.Clock defines one: an unqualified call
  # does not reach another module
  def label(tries), do: "try " <> to_string(tries)
end
