defmodule MyApp.RateLimiter do
  @moduledoc """
  Limits requests per client with a token bucket kept in ETS.

  Each `do ... end` in this text is not code.
  """
  use GenServer
  alias MyApp.Clock
  import MyApp.Helpers, only: [now: 0]

  @table :rate_limiter

  defmodule Bucket do
    @moduledoc false
    defstruct tokens: 10, updated_at: 0

    def refill(%__MODULE__{} = b, rate, at), do: %{b | tokens: b.tokens + rate * (at - b.updated_at)}
  end

  @doc "Starts the limiter."
  @spec start_link(keyword) :: GenServer.on_start()
  def start_link(opts \\ []) do
    GenServer.start_link(__MODULE__, opts, name: __MODULE__)
  end

  @doc """
  Checks one request of `client`; returns `:ok` or `{:error, :limited}`.

  A client name that is not a binary is refused.
  """
  def check(client) when is_binary(client) do
    case :ets.lookup(@table, client) do
      [] -> insert(client)
      [{^client, bucket}] -> take(client, bucket)
    end
  end

  def check(_client), do: {:error, :bad_client}

  defp take(client, bucket) do
    bucket = Bucket.refill(bucket, 1, Clock.now())
    if bucket.tokens >= 1 do
      :ets.insert(@table, {client, %{bucket | tokens: bucket.tokens - 1}})
      :ok
    else
      {:error, :limited}
    end
  end

  defp insert(client) do
    Enum.each([client], fn c ->
      :ets.insert(@table, {c, %Bucket{updated_at: now()}})
    end)
    :ok
  end

  defmacro limited(client, do: block) do
    quote do
      if check(unquote(client)) == :ok, do: unquote(block), else: {:error, ~s(limited "end")}
    end
  end

  @impl true
  def init(_opts) do
    :ets.new(@table, [:named_table, :public])
    {:ok, %{}}
  end

  defdelegate now_ms(), to: Clock, as: :now
end

defimpl String.Chars, for: MyApp.RateLimiter.Bucket do
  def to_string(b), do: "bucket(#{b.tokens})"
end
