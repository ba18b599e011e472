import{r as e,t}from"./chunk-SHT3W25Y-BJvA1krL.js";import"./chunk-POPQ4Y6H-CxcXTgdt.js";import"./mermaid.core-CVMr-0Sx.js";import"./chunk-F27PBJKO-DDtsis5y.js";import"./chunk-L3NEJ4N5-1Kb2OZkt.js";import"./chunk-OSK3NFVY-EOYmZh5G.js";import"./chunk-GVQU2GXP-tH48tQUY.js";import"./chunk-4HAMMTFA-C3JiLopc.js";import"./chunk-P2QGCYS3-XVXl2VsR.js";import"./chunk-GMAD6QVW-uUEUBCWO.js";import"./chunk-PWAF6VOD-C1AOywPj.js";import"./chunk-75Z2AOVW-tFA2iCy8.js";import"./chunk-DU6HZSFF-CfhxLpSI.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};