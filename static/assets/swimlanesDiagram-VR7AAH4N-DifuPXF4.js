import{r as e,t}from"./chunk-SHT3W25Y-CwRT-b-A.js";import"./chunk-POPQ4Y6H-CD69UWbU.js";import"./mermaid.core-C-u5N7Up.js";import"./chunk-F27PBJKO-e5nx_0ES.js";import"./chunk-L3NEJ4N5-CmpLSmqP.js";import"./chunk-OSK3NFVY-B_lzpo7X.js";import"./chunk-GVQU2GXP-B68Jm5NO.js";import"./chunk-4HAMMTFA-dmiOO4Yo.js";import"./chunk-P2QGCYS3-3XW8D2BM.js";import"./chunk-GMAD6QVW-BG53BZm7.js";import"./chunk-PWAF6VOD-BeJYOjiU.js";import"./chunk-75Z2AOVW-DYY4qyIQ.js";import"./chunk-DU6HZSFF-DoQll2bf.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};