"""The start contract: what the page's boot script, its client and the sim worker tell each other,
declared once.

- The start fields: the page's start-up settings. Each is one data attribute of the boot script
  (templates/_startup_data.html writes them from `attributes`), one option of the page's client and,
  unless it is the page's alone, one field of the worker's start message, under one name: the
  attribute is the name in kebab case (`lockInfo` is `data-lock-info`), so the browser's dataset
  gives the name back.
- The worker's messages, the stages of its start (each with the words the page shows), the marks
  of its start, and the ways it starts.
- Every failure a reader can meet, by code: who reports it, when, and the words the page shows.

It reaches the page as JSON in the boot script's `data-contract` attribute (`page_contract`):
sim-boot.js makes the client's options and the start message from the fields it lists and puts the
names of the stages, marks and failures into the start message; sim-worker.js posts no stage, mark
or failure the message does not name; sim-client.js reports no failure the contract lacks; and
bench/status.js words every stage and failure with the string keys the contract gives it
(stageWords, failureWords), which the build checks in every language (`words`, sitebuild/js_strings.py).
docs/bench-protocol.md's tables of the contract are made from it (sitebuild/doc_tables.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Field:
    name: str
    kind: str  # "url" (resolved against the page; absolute in the message), "text" or "json"
    doc: str
    message: bool = True  # in the start message (False: the page's alone)
    per_lang: bool = False  # the page's language's value (snapshots, models and sizes are per language)
    # A worker's script that the page starts beside the sim worker, posting the sim worker a port to
    # it as {type: "port", name, port} (sim-boot.js says why); empty: none is started.
    port: bool = False
    # The start field holding the bytes of the page's style sheet as brotli -q 11 makes them: this
    # field goes in the start message only where the host sent the sheet in that many bytes (it
    # compresses ahead) and the page came in over a fast link (sim-boot.js, wasmItselfPays), else
    # as null; empty: always.
    if_brotli: str = ""
    # This field goes in the start message only where the page is controlled by the site's service
    # worker (an earlier visit went live, registered it and had the worker keep what it keeps), else
    # as null.
    if_controlled: bool = False


@dataclass(frozen=True)
class Stage:
    name: str
    by: str  # "worker" or "client"
    doc: str
    words: str | None  # the page's string (strings.toml), or None: not shown as a stage


@dataclass(frozen=True)
class Failure:
    code: str
    by: str  # who reports it: "worker" or "client"
    doc: str
    words: str  # the page's string (strings.toml); b_fail_tail follows it


FIELDS = (
    Field("worker", "url", "the sim worker's script (sim-worker.js, with its version)", message=False),
    Field("pyodide", "url", "Pyodide's folder, its `indexURL`"),
    Field("pyodideScript", "url", "Pyodide's loader, `{loader}` (the course package names it `{lms.loader}`)"),
    Field("pyodideModule", "url", "Emscripten's module, `{module}` (the course package: `{lms.module}`)"),
    Field("wasm", "url", "Pyodide's `.wasm` as an .xz stream (`{wasmXz}`), which the worker decodes and "
                         "compiles as its bytes come in; Pyodide's own request for the `.wasm` is answered with "
                         "that module"),
    Field("wasmPlain", "url", "Pyodide's `.wasm` itself (`{wasm}`), which the worker fetches instead where "
                              "the host sends the site's files with brotli at its best quality and the page came in "
                              "at 40 Mbit/s or more (the page's guess, `sheetBrotli`; the worker takes it only if it "
                              "comes brotli-encoded, else the .xz): the browser decodes it as it comes, and the worker "
                              "compiles it as it is (null in the start message elsewhere; empty in the course package)",
          if_brotli="sheetBrotli"),
    Field("sheetBrotli", "json", "the bytes of the page's style sheet as brotli -q 11 makes them: a host whose "
                                 "answer for it has that size (its encoded body, resource timing) compresses ahead",
          message=False),
    Field("stdlib", "url", "the trimmed, precompiled standard library (the fallback's; the snapshot needs none)"),
    Field("lock", "url", "our `pyodide-lock.json`, which lists the sim wheel and its sha256 (the fallback's)"),
    Field("lockInfo", "json", "the lock's `info` (ABI, platform, Python): what Pyodide checks on the snapshot path, "
                              "which downloads no lock"),
    Field("wasmCache", "text", "the Cache Storage where the worker keeps the decoded `.wasm` when asked "
                               "(`{type: \"keep\"}`) and looks for it first, so that a later visit does not decode it "
                               "again (empty: neither, the course package)"),
    Field("wasmKept", "json", "true where the page has the site's service worker, so an earlier visit most "
                              "likely kept the decoded `.wasm` (`wasmCache`): the worker then looks for it before it "
                              "asks for the `.xz` (asked beside the lookup, the `.xz` would be dropped, an aborted "
                              "request, whenever the copy is there); null elsewhere: both at once, which a first visit "
                              "gains by", if_controlled=True),
    Field("snapshot", "url", "the language's memory snapshot (empty: a build without snapshots, `--start=wheel`)",
          per_lang=True),
    Field("snapshotSize", "json", "the language's snapshot's own size, decoded (bytes): the worker hands Pyodide an "
                                  "array of that size at once, which the decoder fills", per_lang=True),
    Field("snapshotToken", "text", "the build's token, which the snapshot must carry"),
    Field("decoder", "url", "the snapshot's decoding worker (`snapshot-inflate-worker.js`), which the page starts "
                            "beside the sim worker, posting it a port to it (empty: a build without snapshots)", port=True),
    Field("model", "url", "the language's model (the fallback's)", per_lang=True),
    Field("lang", "text", "the page's language, which the snapshot must be made for"),
    Field("sizes", "json", "the bytes of each file the worker may fetch, by the names its loading message counts "
                           "them under", per_lang=True),
    Field("serviceWorker", "url", "the site's service worker (empty in a course package)", message=False),
)

STAGES = (
    Stage("download", "worker", "Pyodide's files and the start files are coming in (`loaded` and `total` count their bytes)",
          "b_loading_download"),
    Stage("start", "worker", "every byte is in: Python is starting", "b_loading_start"),
    Stage("fallback", "worker", "the snapshot is missing or refused (`reason`): Python starts the slower way",
          "b_loading_fallback"),
    Stage("package", "worker", "the fallback installs the sim wheel", "b_loading_package"),
    Stage("model", "worker", "the fallback opens the session on the model", "b_loading_model"),
    Stage("restarted", "client", "a start that went quiet for 12 s is started again in a fresh worker, once "
                                 "(not shown: the bar goes on)", None),
)

MARKS = (
    ("worker-evaluated", "the worker's module has run"),
    ("worker-start", "the start message is read (from the worker's name, or posted)"),
    ("worker-pyodide-mjs", "Pyodide's loader is imported"),
    ("worker-asm-mjs", "Emscripten's module is imported"),
    ("worker-wasm-compiled", "the `.wasm` is compiled"),
    ("worker-snapshot-read", "the snapshot is decoded and its delta undone"),
    ("worker-wasm-instantiated", "the `.wasm` is instantiated"),
    ("worker-delta-undone", "the snapshot is in the array Pyodide restores from"),
    ("worker-restored", "Python is restored from the snapshot"),
    ("worker-ready", "the session answers"),
)

VIA = (("snapshot", "restored from the language's memory snapshot"),
       ("wheel", "the fallback: started on the trimmed stdlib, the sim wheel installed, the model read"))

FAILURES = (
    Failure("no_wasm", "client", "the browser has no WebAssembly", "b_fail_no_wasm"),
    Failure("worker", "client", "the worker's script (or sim-boot.js) did not load, or the worker could not be made",
            "b_fail_worker"),
    Failure("wasm", "worker", "Pyodide's `.wasm` did not load, compile or instantiate (no fallback: it needs the "
                              "same `.wasm`)", "b_fail_wasm"),
    Failure("offline", "worker", "a file Python needs could not be fetched at all (no answer: the network is off) "
                                 "and the offline copy lacks it: the service worker keeps only the languages visited",
            "b_fail_offline"),
    Failure("download", "worker", "a file Python needs came back with an error (an HTTP status), or failed with the "
                                  "network on", "b_fail_download"),
    Failure("start", "worker", "anything else while Python starts", "b_fail_start"),
    Failure("stalled", "client", "no progress for 60 s (its detail names the worker's last mark)", "b_fail_stalled"),
    Failure("died", "client", "the worker reported an error after the start", "b_fail_died"),
    Failure("message", "client", "a message from the worker could not be read (`messageerror`)", "b_fail_message"),
)

# The worker's messages, in the order of a start, and the page's calls.
MESSAGES = (
    ("page → worker", "`{type: \"start\", contract, ...fields}`", "the start message: every start field marked "
     "for it (addresses made absolute) and the contract's names; also the worker's `name`, which it reads as its "
     "module runs (a posted message is handed over only once the page's thread is free)"),
    ("page → worker", "`{type: \"port\", name, port}`", "a port to the worker the page started beside the sim "
     "worker for the start field `name` (one marked port: the snapshot's decoder), when the start message names "
     "one (`port` null: it could not be started); it may come before the start message"),
    ("worker → page", "`{type: \"mark\", name, at}`", "a step of the start done (`at`: milliseconds on "
     "`performance.timeOrigin`'s clock)"),
    ("worker → page", "`{type: \"progress\", stage, loaded, total, reason?}`", "the start's stage and the bytes so far"),
    ("worker → page", "`{type: \"ready\", python, via, timings}`", "Python answers (`python`: its version and "
     "platform): `via` says how it started, "
     "`timings` holds every mark"),
    ("worker → page", "`{type: \"failed\", code, error}`", "the start failed: a failure code and the raw detail"),
    ("page → worker", "`{type: \"keep\"}`", "keep the decoded `.wasm` in Cache Storage (the start field "
     "`wasmCache`), sent once the site's service worker is registered: the site keeps an offline copy"),
    ("page → worker", "`{id, command, args}`", "a call (docs/bench-protocol.md lists the commands)"),
    ("worker → page", "`{id, type: \"partial\", stage}`", "a long command's stage before its answer (`use_text`)"),
    ("worker → page", "`{id, ok, result \\| error, param, code, details}`", "the call's answer"),
)

KINDS = ("url", "text", "json")


def attribute(name: str) -> str:
    """The data attribute of a start field: data-<kebab case of its name>."""
    return re.sub(r"[A-Z]", lambda m: "-" + m.group(0).lower(), name)


def page_contract() -> dict:
    """What the page reads (JSON in the boot script's data-contract)."""
    return {
        "fields": [{"name": f.name, "kind": f.kind, "message": f.message, "port": f.port, "ifBrotli": f.if_brotli,
                    "ifControlled": f.if_controlled}
                   for f in FIELDS],
        "stages": [s.name for s in STAGES],
        "marks": [name for name, _ in MARKS],
        "failures": [f.code for f in FAILURES],
        "via": [name for name, _ in VIA],
        # The words the page shows for each stage and failure (bench/status.js reads them here).
        "stageWords": {s.name: s.words for s in STAGES if s.words},
        "failureWords": {f.code: f.words for f in FAILURES},
    }


def words() -> list[str]:
    """The interface strings the contract names, which every language's strings.toml must have
    (the build checks them beside the scripts' own: sitebuild/js_strings.py)."""
    return [s.words for s in STAGES if s.words] + [f.words for f in FAILURES]


def attributes(settings: dict, lang: str) -> list[tuple[str, object, bool]]:
    """The boot script's data attributes for a page: (attribute name, value, is JSON) per start
    field, and the contract. settings: the page's start-up settings but its language (absolute or
    page-relative addresses, per language where FIELDS says so). A JSON value is given as the value
    to write as JSON; a missing per-language value (a build without snapshots) as empty text."""
    settings = {**settings, "lang": lang}
    missing = [f.name for f in FIELDS if f.name not in settings]
    if missing:
        raise KeyError(f"the start-up settings lack {', '.join(missing)} (sitebuild/startup/contract.py)")
    out = []
    for f in FIELDS:
        value = settings[f.name]
        if f.per_lang:
            value = (value or {}).get(lang)
        out.append((attribute(f.name), value, True) if f.kind == "json" else (attribute(f.name), value or "", False))
    out.append(("contract", page_contract(), True))
    return out
