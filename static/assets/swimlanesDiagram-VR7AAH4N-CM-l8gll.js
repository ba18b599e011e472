import{r as e,t}from"./chunk-SHT3W25Y-bxIrV3nw.js";import"./chunk-POPQ4Y6H-BBWqpBcp.js";import"./mermaid.core-D_AJdKIn.js";import"./chunk-F27PBJKO-BkV9-7Vz.js";import"./chunk-L3NEJ4N5-B32MC1ZD.js";import"./chunk-OSK3NFVY-Cuex62Sw.js";import"./chunk-GVQU2GXP-B-fPcg4I.js";import"./chunk-4HAMMTFA-BCQUNmI2.js";import"./chunk-P2QGCYS3-CJ1Fnb9v.js";import"./chunk-GMAD6QVW-Cfqkmjpo.js";import"./chunk-PWAF6VOD-CI_8yfKp.js";import"./chunk-75Z2AOVW-C6sakKIM.js";import"./chunk-DU6HZSFF-pmeTrDxi.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};