import{r as e,t}from"./chunk-SHT3W25Y-C_blLpUo.js";import"./chunk-POPQ4Y6H-Cuu6SGLj.js";import"./mermaid.core--K4kJ8Fv.js";import"./chunk-F27PBJKO-BDetnjrV.js";import"./chunk-L3NEJ4N5-CtuGzj10.js";import"./chunk-OSK3NFVY-BJf3Wsll.js";import"./chunk-GVQU2GXP-BzwPFuqo.js";import"./chunk-4HAMMTFA-BRIoY91e.js";import"./chunk-P2QGCYS3-CLyzTwQo.js";import"./chunk-GMAD6QVW-Da96mqET.js";import"./chunk-PWAF6VOD-DLhIV-3L.js";import"./chunk-75Z2AOVW-Decnr15O.js";import"./chunk-DU6HZSFF-Dtr9apIm.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};