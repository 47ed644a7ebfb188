defmodule App.Plug.Trace do
  @moduledoc "Tags a request with an id."

  def call(request, id), do: Map.put(request, :trace_id, id)
end
