import type { Item } from "../state/transcript";
import { errorAdvice, INFO_CODES } from "../util/errors";
import { ApprovalCard } from "./ApprovalCard";
import { AssistantMessage } from "./AssistantMessage";
import { CompactionNote } from "./CompactionNote";
import { ErrorNote } from "./ErrorNote";
import { PlanCard } from "./PlanCard";
import { QuestionCard } from "./QuestionCard";
import { RunEnd } from "./RunEnd";
import { RunStart } from "./RunStart";
import { ToolCard } from "./ToolCard";
import { UserMessage } from "./UserMessage";
import { RetryNote } from "./RetryNote";
import { RevertNote } from "./RevertNote";
import { WakeupNote } from "./WakeupNote";
import { WebSearchNote } from "./WebSearchNote";
import { HookNote } from "./HookNote";

/** One transcript item drawn by its kind (`TranscriptRow` decides when it is drawn again). */
export function ItemRow({ item }: { item: Item }) {
  switch (item.kind) {
    case "user":
      return <UserMessage item={item} />;
    case "assistant":
      return <AssistantMessage item={item} />;
    case "tool":
      return <ToolCard item={item} />;
    case "approval":
      return <ApprovalCard approval={item.approval} inline />;
    case "run_start":
      return <RunStart run={item.runState} />;
    case "run_end":
      return <RunEnd run={item.runState} />;
    case "question":
      return <QuestionCard question={item.question} />;
    case "plan":
      return <PlanCard plan={item.plan} />;
    case "retry":
      return <RetryNote item={item} />;
    case "notice":
      // An error the run then ended with is shown once, at the run's end.
      if (item.shownAtEnd) return null;
      if (INFO_CODES.has(item.code)) {
        return (
          <div class="system-note" role="note" data-code={item.code}>
            {errorAdvice(item.code, item.message).sentence}
          </div>
        );
      }
      return (
        <div class="notice-item">
          <ErrorNote code={item.code} message={item.message} />
        </div>
      );
    case "wakeup":
      return <WakeupNote item={item} />;
    case "hook":
      return <HookNote item={item} />;
    case "web_search":
      return <WebSearchNote item={item} />;
    case "compaction":
      return <CompactionNote item={item} />;
    case "revert":
      return <RevertNote item={item} />;
    default:
      return null;
  }
}
