import{r as e,t}from"./chunk-SHT3W25Y-PAPSaSbK.js";import"./chunk-POPQ4Y6H-tkFX6pNG.js";import"./mermaid.core-C60xzSdR.js";import"./chunk-F27PBJKO-CMO_8zAj.js";import"./chunk-L3NEJ4N5-CtO2ffTN.js";import"./chunk-OSK3NFVY-4TrRNebw.js";import"./chunk-GVQU2GXP-95JaAuT9.js";import"./chunk-4HAMMTFA-COBrKWsF.js";import"./chunk-P2QGCYS3-6lA6jUD1.js";import"./chunk-GMAD6QVW-CHy8nJ_y.js";import"./chunk-PWAF6VOD-D5e4vD2x.js";import"./chunk-75Z2AOVW-BoHyfDM6.js";import"./chunk-DU6HZSFF-xmuUZHDN.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};