// coderag serve: the status page's live table and its writes (index a
// directory, remove a project). No libraries.
//
// The token a person types is kept in sessionStorage (this tab only) and
// sent as "Authorization: Bearer TOKEN" with the API's requests; it is never
// put in a URL or a cookie. A refused or failed write shows the API's error
// text.
"use strict";
// The graph page: a new depth is shown at once (the form works without
// script too, with its button).
(function () {
  const depth = document.getElementById("depth");
  if (depth) depth.addEventListener("change", function () { depth.form.submit(); });
})();
(function () {
  const table = document.getElementById("status");
  if (!table) return;
  const tbody = table.tBodies[0];
  const msg = document.getElementById("write-msg");
  const tokenForm = document.getElementById("tokenform");
  const tokenInput = document.getElementById("token");
  const tokenState = document.getElementById("token-state");
  const tokenForget = document.getElementById("token-forget");
  const indexForm = document.getElementById("indexform");
  const indexRoot = document.getElementById("index-root");
  const KEY = "coderag_token";

  function token() {
    try { return sessionStorage.getItem(KEY) || ""; } catch (e) { return ""; }
  }
  function setToken(t) {
    try {
      if (t) sessionStorage.setItem(KEY, t); else sessionStorage.removeItem(KEY);
    } catch (e) {
      say("this browser keeps no session storage: the token cannot be kept", true);
    }
    showToken();
  }
  function showToken() {
    const t = token();
    tokenInput.value = "";
    tokenState.textContent = t ? "token set for this tab" : "no token yet: index and remove need it";
    tokenForget.hidden = !t;
  }
  function say(text, isError) {
    msg.textContent = text;
    msg.className = isError ? "error" : "ok";
  }
  function headers() {
    const h = { "Accept": "application/json" };
    const t = token();
    if (t) h["Authorization"] = "Bearer " + t;
    return h;
  }

  // write POSTs {"root": root} to path and returns {body} or {error, status}.
  async function write(path, root) {
    let res;
    try {
      const h = headers();
      h["Content-Type"] = "application/json";
      gen++;
      res = await fetch(path, { method: "POST", headers: h, body: JSON.stringify({ root: root }), credentials: "same-origin" });
    } catch (e) {
      return { error: "the server did not answer: " + e.message, status: 0 };
    }
    gen++;
    let body = null;
    try { body = await res.json(); } catch (e) { /* not JSON: the status line says it */ }
    if (!res.ok) {
      const why = body && body.error ? body.error : res.status + " " + res.statusText;
      return { error: why, status: res.status };
    }
    return { body: body };
  }
  function refused(r) {
    if (r.status === 401 && token()) setToken(""); // a wrong token is forgotten, not sent again
    say(r.error, true);
    if (r.status === 401 || r.status === 403) tokenInput.focus();
  }

  function stateOf(p) {
    const r = p.indexing;
    if (r && r.running) return "running";
    if (r && r.cancelled) return "cancelled";
    if (r && r.error) return "failed";
    if (r) return "done";
    return "idle";
  }
  function stateText(p) {
    const r = p.indexing;
    if (r && r.running) return r.phase + " " + r.done + "/" + r.total + " files, " + r.scanned + " scanned";
    if (r && r.cancelled) return r.state;
    if (r && r.error) return "failed: " + r.error;
    if (r && r.report) return "done: " + r.report.changed + " changed, " + r.report.unchanged + " unchanged, " + r.report.failed + " failed";
    if (p.total_files) return "incomplete: " + p.indexed_files + " of " + p.total_files + " files";
    return "idle";
  }

  function rowOf(root) {
    for (const tr of tbody.rows) if (tr.dataset.project === root) return tr;
    return null;
  }
  function newRow(p) {
    const tr = document.createElement("tr");
    tr.dataset.project = p.project;
    for (let i = 0; i < 8; i++) tr.appendChild(document.createElement("td"));
    tr.cells[0].title = p.project;
    tr.cells[6].className = "state";
    tr.cells[7].className = "actions";
    tr.cells[7].appendChild(removeButton());
    return tr;
  }
  function update(tr, p) {
    const c = tr.cells;
    c[0].textContent = p.name;
    c[1].textContent = p.files;
    c[2].textContent = p.chunks;
    c[3].textContent = p.relations;
    c[4].textContent = p.embedder || "";
    c[5].textContent = p.updated_at || "";
    tr.dataset.state = stateOf(p);
    c[6].textContent = stateText(p);
    if (p.indexing && p.indexing.running) {
      const bar = document.createElement("progress");
      bar.max = 100;
      bar.value = p.indexing.total ? 100 * p.indexing.done / p.indexing.total : 0;
      c[6].prepend(bar, " ");
    }
  }
  function showEmpty() {
    if (tbody.querySelector("tr[data-project]") || tbody.querySelector("tr.empty")) return;
    const tr = document.createElement("tr");
    tr.className = "empty";
    const td = document.createElement("td");
    td.colSpan = 8;
    td.textContent = "Nothing is indexed yet.";
    tr.appendChild(td);
    tbody.appendChild(tr);
  }

  // watching: the root whose run this page started, reported when it ends.
  let watching = "";
  let timer = 0;
  // gen counts this page's writes: a status read that a write overtook is
  // dropped, so a removed row does not come back from an older answer.
  let gen = 0;
  function schedule(ms) {
    clearTimeout(timer);
    timer = setTimeout(poll, ms);
  }
  async function poll() {
    let running = false;
    const g = gen;
    try {
      const res = await fetch("/api/status", { headers: headers(), credentials: "same-origin" });
      if (res.status === 401 && token()) {
        setToken(""); // the server refuses it on every route: forget it
        try { say((await res.json()).error, true); } catch (e) { say("token does not match", true); }
      }
      if (!res.ok) { schedule(5000); return; }
      const st = await res.json();
      if (g !== gen) { schedule(0); return; }
      const listed = new Set();
      for (const p of st.projects) {
        listed.add(p.project);
        let tr = rowOf(p.project);
        if (!tr) {
          const empty = tbody.querySelector("tr.empty");
          if (empty) empty.remove();
          tr = newRow(p);
          tbody.appendChild(tr);
        }
        if (!tr.classList.contains("confirming")) update(tr, p);
        if (p.indexing && p.indexing.running) running = true;
        if (p.project === watching && !(p.indexing && p.indexing.running)) {
          watching = "";
          if (p.indexing && p.indexing.cancelled) say("indexing " + p.project + " " + p.indexing.state, false);
          else if (p.indexing && p.indexing.error) say("indexing " + p.project + " failed: " + p.indexing.error, true);
          else say("indexed " + p.project + ": " + stateText(p).replace(/^done: /, ""), false);
        }
      }
      for (const tr of Array.from(tbody.querySelectorAll("tr[data-project]"))) {
        if (!listed.has(tr.dataset.project)) tr.remove();
      }
      showEmpty();
    } catch (e) {
      schedule(5000);
      return;
    }
    schedule(running || watching ? 1000 : 5000);
  }

  function removeButton() {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "remove";
    b.textContent = "remove";
    return b;
  }
  // The remove button asks first, in the row: "Remove NAME from the
  // index?" with a confirm and a cancel button.
  function askRemove(tr) {
    const cell = tr.cells[7];
    tr.classList.add("confirming");
    cell.textContent = "Remove " + tr.cells[0].textContent + " from the index? ";
    const yes = document.createElement("button");
    yes.type = "button";
    yes.className = "confirm";
    yes.textContent = "Yes, remove";
    const no = document.createElement("button");
    no.type = "button";
    no.className = "cancel";
    no.textContent = "Cancel";
    cell.append(yes, " ", no);
    no.focus();
  }
  function endAsk(tr) {
    tr.classList.remove("confirming");
    tr.cells[7].replaceChildren(removeButton());
  }
  tbody.addEventListener("click", async function (ev) {
    const b = ev.target.closest("button");
    const tr = b && b.closest("tr[data-project]");
    if (!tr) return;
    if (b.classList.contains("remove")) { askRemove(tr); return; }
    if (b.classList.contains("cancel")) { endAsk(tr); return; }
    if (!b.classList.contains("confirm")) return;
    const root = tr.dataset.project;
    b.disabled = true;
    say("removing " + root + "…", false);
    const r = await write("/api/remove", root);
    if (r.error) {
      endAsk(tr);
      refused(r);
      return;
    }
    tr.remove();
    showEmpty();
    say("removed " + r.body.removed + " from the index (" + r.body.files + (r.body.files === 1 ? " file)" : " files)"), false);
  });

  tokenForm.addEventListener("submit", function (ev) {
    ev.preventDefault();
    const t = tokenInput.value.trim();
    if (t) setToken(t);
  });
  tokenForget.addEventListener("click", function () { setToken(""); });

  indexForm.addEventListener("submit", async function (ev) {
    ev.preventDefault();
    const root = indexRoot.value.trim();
    if (!root) { say("give a directory on the server to index", true); return; }
    say("starting an index run of " + root + "…", false);
    const r = await write("/api/index", root);
    if (r.error) { refused(r); return; }
    watching = r.body.project;
    indexRoot.value = "";
    say("indexing " + watching + "…", false);
    poll();
  });

  showToken();
  schedule(1000);
})();
