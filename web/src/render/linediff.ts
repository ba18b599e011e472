// A line diff between two texts (plan revisions): LCS on lines, with the
// common prefix and suffix trimmed first so typical edits stay cheap.
export interface DiffRow {
  op: " " | "+" | "-";
  text: string;
  oldNo: number | null;
  newNo: number | null;
}

const MAX_CELLS = 4_000_000;

export function lineDiff(a: string, b: string): DiffRow[] {
  const A = a.split("\n");
  const B = b.split("\n");
  let pre = 0;
  while (pre < A.length && pre < B.length && A[pre] === B[pre]) pre++;
  let suf = 0;
  while (suf < A.length - pre && suf < B.length - pre && A[A.length - 1 - suf] === B[B.length - 1 - suf]) suf++;
  const a2 = A.slice(pre, A.length - suf);
  const b2 = B.slice(pre, B.length - suf);
  const rows: DiffRow[] = [];
  for (let i = 0; i < pre; i++) rows.push({ op: " ", text: A[i], oldNo: i + 1, newNo: i + 1 });
  const n = a2.length;
  const m = b2.length;
  if (n * m > MAX_CELLS) {
    // Too big for LCS: all old lines out, all new lines in.
    a2.forEach((t, i) => rows.push({ op: "-", text: t, oldNo: pre + i + 1, newNo: null }));
    b2.forEach((t, j) => rows.push({ op: "+", text: t, oldNo: null, newNo: pre + j + 1 }));
  } else {
    // lcs[i][j] = LCS length of a2[i..] and b2[j..]
    const w = m + 1;
    const lcs = new Uint32Array((n + 1) * w);
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i * w + j] = a2[i] === b2[j] ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a2[i] === b2[j]) {
        rows.push({ op: " ", text: a2[i], oldNo: pre + i + 1, newNo: pre + j + 1 });
        i++;
        j++;
      } else if (i < n && (j >= m || lcs[(i + 1) * w + j] >= lcs[i * w + j + 1])) {
        rows.push({ op: "-", text: a2[i], oldNo: pre + i + 1, newNo: null });
        i++;
      } else {
        rows.push({ op: "+", text: b2[j], oldNo: null, newNo: pre + j + 1 });
        j++;
      }
    }
  }
  for (let k = 0; k < suf; k++) {
    const oi = A.length - suf + k;
    const ni = B.length - suf + k;
    rows.push({ op: " ", text: A[oi], oldNo: oi + 1, newNo: ni + 1 });
  }
  return rows;
}
