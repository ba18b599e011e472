import{r as e,t}from"./chunk-SHT3W25Y-DEsAXBXM.js";import"./chunk-POPQ4Y6H-B0n3LFo6.js";import"./mermaid.core-fVXbwWRV.js";import"./chunk-F27PBJKO-CyIPRKT6.js";import"./chunk-L3NEJ4N5-Crkzl9cr.js";import"./chunk-OSK3NFVY-fY6qocST.js";import"./chunk-GVQU2GXP-DeAPDOGc.js";import"./chunk-4HAMMTFA-AwHkhY1U.js";import"./chunk-P2QGCYS3-CjFyD-DV.js";import"./chunk-GMAD6QVW-KLqB42d_.js";import"./chunk-PWAF6VOD-7qQk_MlS.js";import"./chunk-75Z2AOVW-BnUcYxjd.js";import"./chunk-DU6HZSFF-Ci7fHXKa.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};