import{r as e,t}from"./chunk-SHT3W25Y-Db_j0eDz.js";import"./chunk-POPQ4Y6H-DTdSmKAI.js";import"./mermaid.core-D8gnlPVa.js";import"./chunk-F27PBJKO-Cz2Ozk59.js";import"./chunk-L3NEJ4N5-B9Y_5HBE.js";import"./chunk-OSK3NFVY-mts_q6ne.js";import"./chunk-GVQU2GXP-BJtUnhuU.js";import"./chunk-4HAMMTFA-D7KxgV8i.js";import"./chunk-P2QGCYS3-CtsIjRlf.js";import"./chunk-GMAD6QVW-plcn_kSs.js";import"./chunk-PWAF6VOD-BNxjY9Ql.js";import"./chunk-75Z2AOVW-D9LB0oxG.js";import"./chunk-DU6HZSFF-Bf1nF3jM.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};