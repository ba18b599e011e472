import{r as e,t}from"./chunk-SHT3W25Y-DTNbMNEn.js";import"./chunk-POPQ4Y6H-JczQdR5u.js";import"./mermaid.core-XrPsW0Jl.js";import"./chunk-F27PBJKO-D-c2CGBD.js";import"./chunk-L3NEJ4N5-BUOsx5Uf.js";import"./chunk-OSK3NFVY-B5Bh_P8X.js";import"./chunk-GVQU2GXP-B7cPzA1X.js";import"./chunk-4HAMMTFA-I3Zwo7oM.js";import"./chunk-P2QGCYS3-Dm7DIdT3.js";import"./chunk-GMAD6QVW-CY0PESn-.js";import"./chunk-PWAF6VOD-CUZrIOHa.js";import"./chunk-75Z2AOVW-geXrkEKW.js";import"./chunk-DU6HZSFF-rQAUaPJt.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};