defmodule App.Clock do
  @moduledoc "Time, so that tests can replace it."

  @spec sleep(non_neg_integer()) :: :ok
  def sleep(ms) when is_integer(ms), do: Process.sleep(ms)
  def sleep(_), do: :ok

  def to_string(ms), do: "#{ms} ms"
end
