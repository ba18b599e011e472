// "Needs you": the tab title and, when the page is hidden and the user allowed
// it, a browser notification for approvals, questions and plans, the session's own
// and those its subagents ask through it (`child_pending`).
import type { KnownEvent } from "../api/types";

const notified = new Set<string>();

function label(ev: KnownEvent): string {
  switch (ev.type) {
    case "approval_requested":
      return `Approval needed: ${ev.tool}`;
    case "question_asked":
      return "The agent has a question";
    case "plan_proposed":
      return "A plan is ready for review";
    case "child_pending": {
      const what = ev.kind === "approval" ? "needs an approval" : ev.kind === "question" ? "has a question" : "has a plan for review";
      return ev.summary ? `A subagent ${what}: ${ev.summary}` : `A subagent ${what}`;
    }
    default:
      return "Tradewind needs you";
  }
}

/**
 * The prompt's id: the tag of its notification, the same as the server's Web Push notice for it
 * (sw.js), so the two replace each other instead of showing twice.
 */
function promptId(ev: KnownEvent): string | null {
  switch (ev.type) {
    case "approval_requested":
      return ev.approval_id;
    case "question_asked":
      return ev.question_id;
    case "plan_proposed":
      return ev.plan_id;
    case "child_pending":
      return ev.id;
    default:
      return null;
  }
}

export function notifyAttention(sessionId: string, ev: KnownEvent): void {
  const key = `${sessionId}:${ev.seq}`;
  if (notified.has(key)) return;
  notified.add(key);
  // Only for fresh events, not for a replayed backlog.
  if (Date.now() - ev.at > 60_000) return;
  if (document.visibilityState === "visible" && document.hasFocus()) return;
  if (typeof Notification === "undefined" || Notification.permission !== "granted") return;
  const title = "Tradewind needs you";
  const options = { body: label(ev), tag: promptId(ev) ?? key, data: { url: `/s/${sessionId}` } };
  // Through the service worker when there is one: it shows while the tab is in the background
  // (and on phones, where only it may), and a click opens the session (sw.js).
  const sw = "serviceWorker" in navigator && window.isSecureContext ? navigator.serviceWorker.getRegistration() : null;
  void (sw ?? Promise.resolve(undefined))
    .then((reg) => {
      if (reg) return reg.showNotification(title, options);
      const n = new Notification(title, options);
      n.onclick = () => {
        window.focus();
        n.close();
      };
    })
    .catch(() => undefined);
}

export async function askNotificationPermission(): Promise<NotificationPermission | "unsupported"> {
  if (typeof Notification === "undefined") return "unsupported";
  if (Notification.permission !== "default") return Notification.permission;
  return Notification.requestPermission();
}
