//! `execute` (code mode): a short JavaScript snippet, run in an embedded QuickJS, that calls
//! other tools — one model round trip instead of twenty. The engine has no I/O, no timers, no
//! `eval` or `Function`; the only way out is `await callTool(name, input)`, and each such call
//! passes the same preparation and gate as a direct one (an approval it would need is a denial,
//! never a prompt). At most 10 s, 20 calls and 64 MiB; `execute`, `exit_plan`, the goal tools
//! and `ask_user_question` cannot be called from it.

use std::time::{Duration, Instant};

use rquickjs::prelude::Async;
use rquickjs::{AsyncContext, AsyncRuntime, CatchResultExt, Function};
use tokio::sync::{mpsc, oneshot};

use super::{Gated, PrepareError, ToolCtx, ToolOutput};
use crate::policy::paths::PathPolicy;
use crate::protocol::Effect;

/// Longest a snippet runs, its tool calls included.
pub const TIME_LIMIT: Duration = Duration::from_secs(10);
/// Most tool calls one snippet makes.
pub const MAX_CALLS: usize = 20;
/// The engine's heap.
const MEMORY_LIMIT: usize = 64 * 1024 * 1024;
const STACK_LIMIT: usize = 1024 * 1024;
/// Longest snippet accepted.
const MAX_CODE_CHARS: usize = 50_000;
/// Most characters of the result the model reads.
const MAX_RESULT_CHARS: usize = 100_000;

/// What runs before the snippet: `callTool`, and the code generators taken away.
const PRELUDE: &str = r#"
globalThis.callTool = async (name, input) =>
  JSON.parse(await __callTool(String(name), JSON.stringify(input === undefined ? {} : input)));
(() => {
  const no = function () { throw new Error("eval and Function are not available in execute"); };
  const ctors = [Function, (async function () {}).constructor, (function* () {}).constructor,
    (async function* () {}).constructor];
  for (const C of ctors) {
    Object.defineProperty(C.prototype, "constructor", { value: no, writable: false, configurable: false });
  }
  delete globalThis.eval;
  delete globalThis.Function;
})();
"#;

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExecuteArgs {
    /// JavaScript with top-level await; the last expression is the result.
    pub code: String,
}

pub struct Execute;

impl super::Tool for Execute {
    const NAME: &'static str = "execute";
    const EFFECT: Effect = Effect::Process;
    const DESCRIPTION: &'static str = "Run a JavaScript snippet that makes many tool calls in one step (e.g. read 20 files and sum their lines): `await callTool(name, input)` returns {ok, text}, with the same permission checks (a call needing approval is refused). The last expression is the result. At most 20 calls, 10 s; no eval, timers or I/O.";
    const NESTED: bool = false;
    type Args = ExecuteArgs;
    type Call = String;

    fn prepare(a: ExecuteArgs, _: &PathPolicy) -> Result<Gated<String>, PrepareError> {
        if a.code.trim().is_empty() || a.code.chars().count() > MAX_CODE_CHARS {
            return Err(PrepareError::Input(format!(
                "code must be 1 to {MAX_CODE_CHARS} characters"
            )));
        }
        Ok(Gated::plain(a.code))
    }

    async fn run(code: String, ctx: &ToolCtx<'_>) -> ToolOutput {
        let deadline = Instant::now() + TIME_LIMIT;
        let (tx, mut rx) = mpsc::channel::<Request>(1);
        // The engine runs on a thread of its own: a busy snippet never holds up the server's
        // workers (the interrupt handler stops it at the deadline or on cancel).
        let cancel = ctx.cancel.clone();
        let js = tokio::task::spawn_blocking(move || {
            futures::executor::block_on(run_js(code, tx, deadline, cancel))
        });
        tokio::pin!(js);
        let mut calls = 0usize;
        let work = async {
            loop {
                tokio::select! {
                    out = &mut js => {
                        return out.unwrap_or_else(|e| ToolOutput::err("internal", format!("the engine stopped: {e}")));
                    }
                    Some(req) = rx.recv() => {
                        calls += 1;
                        let answer = if calls > MAX_CALLS {
                            Err(format!("execute: at most {MAX_CALLS} tool calls per snippet; this was call {calls}"))
                        } else {
                            Ok(nested(ctx, &req.name, req.input, calls).await)
                        };
                        let _ = req.reply.send(answer);
                    }
                }
            }
        };
        match tokio::time::timeout_at(deadline.into(), work).await {
            Ok(out) => out,
            Err(_) => ToolOutput::err(
                "timeout",
                format!(
                    "execute stopped after {} s (its tool calls included); do less per snippet",
                    TIME_LIMIT.as_secs()
                ),
            ),
        }
    }
}

/// A snippet's call of a tool, and where its answer goes.
struct Request {
    name: String,
    input: String,
    reply: oneshot::Sender<Result<String, String>>,
}

/// Why a snippet's call that would ask is denied, and what to do instead.
const NEVER_ASKS: &str = "a call inside execute never asks: make this call directly";

/// One nested call, as `{ok, text}` JSON.
async fn nested(ctx: &ToolCtx<'_>, name: &str, input: String, n: usize) -> String {
    let call = crate::provider::ToolCallReq {
        id: format!("{}.{n}", ctx.call_id).into(),
        name: name.to_string(),
        arguments: input,
    };
    let out = ctx.host.nested(&call, NEVER_ASKS).await;
    serde_json::json!({"ok": out.ok, "text": out.text}).to_string()
}

/// Run the snippet in a fresh engine; the result as JSON text.
async fn run_js(
    code: String,
    tx: mpsc::Sender<Request>,
    deadline: Instant,
    cancel: tokio_util::sync::CancellationToken,
) -> ToolOutput {
    let rt = match AsyncRuntime::new() {
        Ok(rt) => rt,
        Err(e) => return ToolOutput::err("internal", format!("cannot start the engine: {e}")),
    };
    rt.set_memory_limit(MEMORY_LIMIT).await;
    rt.set_max_stack_size(STACK_LIMIT).await;
    let stop = cancel.clone();
    rt.set_interrupt_handler(Some(Box::new(move || {
        Instant::now() >= deadline || stop.is_cancelled()
    })))
    .await;
    let context = match AsyncContext::full(&rt).await {
        Ok(c) => c,
        Err(e) => return ToolOutput::err("internal", format!("cannot start the engine: {e}")),
    };
    let result: Result<Option<String>, String> = context
        .async_with(async |ctx| {
            let call = Function::new(
                ctx.clone(),
                Async(move |name: String, input: String| {
                    let tx = tx.clone();
                    async move {
                        let (reply, answer) = oneshot::channel();
                        let gone = || {
                            rquickjs::Error::new_from_js_message(
                                "callTool",
                                "string",
                                "execute has ended",
                            )
                        };
                        tx.send(Request { name, input, reply })
                            .await
                            .map_err(|_| gone())?;
                        match answer.await.map_err(|_| gone())? {
                            Ok(json) => Ok(json),
                            Err(msg) => Err(rquickjs::Error::new_from_js_message(
                                "callTool", "string", msg,
                            )),
                        }
                    }
                }),
            );
            let setup = call
                .and_then(|f| ctx.globals().set("__callTool", f))
                .and_then(|()| ctx.eval::<(), _>(PRELUDE));
            if let Err(e) = setup.catch(&ctx) {
                return Err(format!("cannot start the engine: {e}"));
            }
            let promise = ctx
                .eval_promise(code.as_bytes())
                .catch(&ctx)
                .map_err(|e| e.to_string())?;
            let value: rquickjs::Value = promise
                .into_future()
                .await
                .catch(&ctx)
                .map_err(|e| e.to_string())?;
            // A script evaluated with top-level await resolves to `{value}`.
            let value = match value.as_object() {
                Some(o)
                    if o.keys::<String>().count() == 1
                        && o.contains_key("value").unwrap_or(false) =>
                {
                    o.get::<_, rquickjs::Value>("value")
                        .unwrap_or(value.clone())
                }
                _ => value,
            };
            ctx.json_stringify(value)
                .catch(&ctx)
                .map_err(|e| e.to_string())
                .map(|s| s.and_then(|s| s.to_string().ok()))
        })
        .await;
    match result {
        Ok(json) => {
            let json = json.unwrap_or_else(|| "null".into());
            let text = crate::util::truncate_str(&json, MAX_RESULT_CHARS).to_string();
            ToolOutput::ok(if text.len() < json.len() {
                format!("{text}\n[… result cut at {MAX_RESULT_CHARS} characters]")
            } else {
                text
            })
        }
        Err(_) if Instant::now() >= deadline => ToolOutput::err(
            "timeout",
            format!(
                "execute stopped after {} s; do less per snippet",
                TIME_LIMIT.as_secs()
            ),
        ),
        Err(_) if cancel.is_cancelled() => ToolOutput::err("cancelled", "the run was cancelled"),
        Err(e) => ToolOutput::err("script_error", e),
    }
}
