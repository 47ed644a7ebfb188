defmodule App.Plug.Auth do
  @moduledoc "Adds the authorization header."

  def call(request, token), do: Map.put(request, :auth, "Bearer " <> token)
end
