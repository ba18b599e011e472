import{r as e,t}from"./chunk-SHT3W25Y-8DqyDE4Q.js";import"./chunk-POPQ4Y6H-t8TC9TfX.js";import"./mermaid.core-BDrm9oWr.js";import"./chunk-F27PBJKO-D5vlMT9Q.js";import"./chunk-L3NEJ4N5-BReAXWGh.js";import"./chunk-OSK3NFVY-D-h858QQ.js";import"./chunk-GVQU2GXP-BXtazijE.js";import"./chunk-4HAMMTFA-CAR5dpgV.js";import"./chunk-P2QGCYS3-Busm2Giz.js";import"./chunk-GMAD6QVW-eGfr1bl2.js";import"./chunk-PWAF6VOD-DfhJSuRk.js";import"./chunk-75Z2AOVW-BFufHlmY.js";import"./chunk-DU6HZSFF-CBjIU7lW.js";import"./d3-selection-CQOeqU2O.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};