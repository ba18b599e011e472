import { Component } from "preact";
import type { Item } from "../state/transcript";
import { ItemRow } from "./ItemRow";

interface Props {
  item: Item;
  /** The item's version: the row re-renders only when it changes. */
  v: number;
}

/** One transcript item in the windowed list; `data-key` lets the windowing measure its row. */
export class TranscriptRow extends Component<Props> {
  shouldComponentUpdate(next: Props): boolean {
    return next.item !== this.props.item || next.v !== this.props.v;
  }

  render({ item }: Props) {
    return (
      <div class="t-row" data-key={item.key}>
        <ItemRow item={item} />
      </div>
    );
  }
}
