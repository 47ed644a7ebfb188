defmodule App.Adapter.Http do
  @moduledoc "Sends a request over HTTP."

  def call(request, _opts), do: {:ok, request}
end
