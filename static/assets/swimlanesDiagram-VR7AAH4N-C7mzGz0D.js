import{r as e,t}from"./chunk-SHT3W25Y-DSv35ASF.js";import"./chunk-POPQ4Y6H-CrglFDS1.js";import"./mermaid.core-DWgryA9_.js";import"./chunk-F27PBJKO-ML7-ligm.js";import"./chunk-L3NEJ4N5-Im7pOXz7.js";import"./chunk-OSK3NFVY-BlHi8t-u.js";import"./chunk-GVQU2GXP-Dd9nZM82.js";import"./chunk-4HAMMTFA-qexichw6.js";import"./chunk-P2QGCYS3-CbDNbju4.js";import"./chunk-GMAD6QVW-Co8FuLwH.js";import"./chunk-PWAF6VOD-BKxBT-uz.js";import"./chunk-75Z2AOVW-BXGM_q6H.js";import"./chunk-DU6HZSFF-ComNB7tM.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};