// Export a session (`/export`, the header's Export): read it whole over REST as the CLI does
// (`tradewind sessions export`: the session, every event page after page, every message page by
// cursor) and hand the browser a file to save, JSON or Markdown.
import { api } from "../api/client";
import type { EventFrame, Message } from "../api/types";
import { type ExportFormat, exportFileName, exportJson, exportMarkdown, sessionDocument, type SessionDocument } from "../util/export";

/** Every event of the session, oldest first. */
export async function allEvents(id: string): Promise<EventFrame[]> {
  const all: EventFrame[] = [];
  let after = 0;
  for (;;) {
    const page = await api.events(id, after, 5000);
    all.push(...page.data);
    // `next_cursor` never goes back; a page that ends nowhere new ends the loop too.
    if (!page.has_more || page.next_cursor <= after) return all;
    after = page.next_cursor;
  }
}

/** Every message the model saw, oldest first. */
export async function allMessages(id: string): Promise<Message[]> {
  const all: Message[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await api.messages(id, cursor);
    all.push(...page.data);
    if (!page.next_cursor || page.next_cursor === cursor) return all;
    cursor = page.next_cursor;
  }
}

/** The session as the CLI's `--format json` writes it. */
export async function readSessionDocument(id: string): Promise<SessionDocument> {
  const session = await api.getSession(id);
  const events = await allEvents(id);
  const messages = await allMessages(id);
  return sessionDocument(session, events, messages);
}

/** Read the session and save it as a file in `format`; resolves to the file's name. */
export async function exportSession(id: string, format: ExportFormat): Promise<string> {
  const doc = await readSessionDocument(id);
  const name = exportFileName(doc.session, format);
  const body = format === "json" ? exportJson(doc) : exportMarkdown(doc);
  saveFile(name, body, format === "json" ? "application/json" : "text/markdown");
  return name;
}

/** Offer `text` to the browser as a download named `name`. */
function saveFile(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: `${type};charset=utf-8` }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  // The browser reads the address once the download starts; it is let go well after that.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
