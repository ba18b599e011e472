import { Component } from "preact";
import type { Item, TranscriptSnapshot } from "../state/transcript";
import { ItemRow } from "./ItemRow";
import "../polish.css";

interface Props {
  item: Item;
  /** The item's version: the row re-renders only when it changes. */
  v: number;
  /** Tells the row when its item changed alone (text streaming in): it redraws by itself. */
  watch: TranscriptSnapshot["watchItem"];
  /** The row a search hit opened (outlined, labelled) until the user moves on. */
  marked?: boolean;
}

/**
 * One transcript item in the windowed list; `data-key` lets the windowing measure its row. A turn
 * a revert took back is dimmed, its first row labelled.
 */
export class TranscriptRow extends Component<Props> {
  private unwatch: (() => void) | null = null;

  componentDidMount(): void {
    this.unwatch = this.props.watch(this.props.item.key, () => this.forceUpdate());
  }

  componentWillUnmount(): void {
    this.unwatch?.();
  }

  shouldComponentUpdate(next: Props): boolean {
    return next.item !== this.props.item || next.v !== this.props.v || next.marked !== this.props.marked;
  }

  render({ item, marked }: Props) {
    const back = item.takenBack;
    return (
      <div class={`t-row${back ? " taken-back" : ""}${marked ? " search-marked" : ""}`} data-key={item.key}>
        {marked && <span class="search-marked-label">Search match</span>}
        {back === "lead" && (
          <span class="taken-back-label" title="A revert took this turn back: the agent no longer sees it.">
            Taken back
          </span>
        )}
        <ItemRow item={item} />
      </div>
    );
  }
}
