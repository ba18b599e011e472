import { Component } from "preact";
import type { Item, TranscriptSnapshot } from "../state/transcript";
import { ItemRow } from "./ItemRow";

interface Props {
  item: Item;
  /** The item's version: the row re-renders only when it changes. */
  v: number;
  /** Tells the row when its item changed alone (text streaming in): it redraws by itself. */
  watch: TranscriptSnapshot["watchItem"];
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
    return next.item !== this.props.item || next.v !== this.props.v;
  }

  render({ item }: Props) {
    const back = item.takenBack;
    return (
      <div class={back ? "t-row taken-back" : "t-row"} data-key={item.key}>
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
