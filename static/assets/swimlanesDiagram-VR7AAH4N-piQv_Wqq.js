import{r as e,t}from"./chunk-SHT3W25Y-BQBw-7_H.js";import"./chunk-POPQ4Y6H-hW8wX7dV.js";import"./mermaid.core-DcJosZFG.js";import"./chunk-F27PBJKO-COB8KFjz.js";import"./chunk-L3NEJ4N5-P4IeIwoT.js";import"./chunk-OSK3NFVY-KphDJhtS.js";import"./chunk-GVQU2GXP-DDrua6a3.js";import"./chunk-4HAMMTFA-Cp0ugGj_.js";import"./chunk-P2QGCYS3-ChNMtkx7.js";import"./chunk-GMAD6QVW-DpzT6_B4.js";import"./chunk-PWAF6VOD-fVUVKhMg.js";import"./chunk-75Z2AOVW-DSraGvLo.js";import"./chunk-DU6HZSFF-CG4O7R0t.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};