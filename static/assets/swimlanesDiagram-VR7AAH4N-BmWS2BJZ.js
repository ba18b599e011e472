import{r as e,t}from"./chunk-SHT3W25Y-CKihYURQ.js";import"./chunk-POPQ4Y6H-BFPfV2v3.js";import"./mermaid.core-CjXe8y04.js";import"./chunk-F27PBJKO-DpOl26Tt.js";import"./chunk-L3NEJ4N5-lJWLCPq-.js";import"./chunk-OSK3NFVY-CN6vfeac.js";import"./chunk-GVQU2GXP-DFRdmzSU.js";import"./chunk-4HAMMTFA-yWt3IwGm.js";import"./chunk-P2QGCYS3-ndP1TeGl.js";import"./chunk-GMAD6QVW-1jl7_vLI.js";import"./chunk-PWAF6VOD-CWOtdY3J.js";import"./chunk-75Z2AOVW-B78AQGfQ.js";import"./chunk-DU6HZSFF-CTZm0RTy.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};