// One shared clock for relative times ("5 min ago"): a tick every 30 s while anything shows one.
import { Observable } from "./observable";

class Tick extends Observable<number> {
  private timer: ReturnType<typeof setInterval> | undefined;
  private users = 0;

  override subscribe(fn: (v: number) => void): () => void {
    const off = super.subscribe(fn);
    if (this.users++ === 0) this.timer = setInterval(() => this.set(Date.now()), 30_000);
    return () => {
      off();
      if (--this.users === 0) clearInterval(this.timer);
    };
  }
}

export const minuteTick = new Tick(Date.now());
