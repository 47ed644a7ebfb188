// coderag serve: keeps the status page's progress current. No libraries.
"use strict";
(function () {
  const table = document.getElementById("status");
  if (!table) return;
  function stateText(p) {
    const r = p.indexing;
    if (r && r.running) return r.phase + " " + r.done + "/" + r.total + " files";
    if (r && r.error) return "failed: " + r.error;
    if (p.total_files) return "incomplete: " + p.indexed_files + " of " + p.total_files + " files";
    return "idle";
  }
  async function poll() {
    try {
      const res = await fetch("/api/status", { credentials: "same-origin" });
      if (!res.ok) return;
      const st = await res.json();
      let running = false;
      for (const p of st.projects) {
        const row = table.querySelector('tr[data-project="' + CSS.escape(p.project) + '"]');
        if (!row) { location.reload(); return; }
        const cells = row.children;
        cells[1].textContent = p.files;
        cells[2].textContent = p.chunks;
        cells[3].textContent = p.relations;
        const state = row.querySelector(".state");
        state.textContent = stateText(p);
        if (p.indexing && p.indexing.running) {
          running = true;
          const bar = document.createElement("progress");
          bar.max = 100;
          bar.value = p.indexing.total ? 100 * p.indexing.done / p.indexing.total : 0;
          state.prepend(bar, " ");
        }
      }
      setTimeout(poll, running ? 1000 : 5000);
    } catch (e) {
      setTimeout(poll, 5000);
    }
  }
  setTimeout(poll, 1000);
})();
