import{r as e,t}from"./chunk-SHT3W25Y-v6ao9Gs9.js";import"./chunk-POPQ4Y6H-rg5uEqSE.js";import"./mermaid.core-BLjjdupO.js";import"./chunk-F27PBJKO-Bkm_ravF.js";import"./chunk-L3NEJ4N5-CrgQ0cGK.js";import"./chunk-OSK3NFVY-B4N0A21w.js";import"./chunk-GVQU2GXP-Cn_dKJdI.js";import"./chunk-4HAMMTFA-D3QagBUS.js";import"./chunk-P2QGCYS3-BGVSWJIt.js";import"./chunk-GMAD6QVW-DEckPN0n.js";import"./chunk-PWAF6VOD-mU0zJVFZ.js";import"./chunk-75Z2AOVW-BVpuZrMo.js";import"./chunk-DU6HZSFF-DBgtzo6l.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};