import{r as e,t}from"./chunk-SHT3W25Y-8M-aj_9u.js";import"./chunk-POPQ4Y6H-BW5euM_B.js";import"./mermaid.core-COQXIVdK.js";import"./chunk-F27PBJKO-x-Mqm1eM.js";import"./chunk-L3NEJ4N5-DD8Kqs4Y.js";import"./chunk-OSK3NFVY-Cpxv9MFq.js";import"./chunk-GVQU2GXP-ChWg9-PP.js";import"./chunk-4HAMMTFA-DnY38ehV.js";import"./chunk-P2QGCYS3-nmNfOFYo.js";import"./chunk-GMAD6QVW-R_uzS2At.js";import"./chunk-PWAF6VOD-jGOQnirS.js";import"./chunk-75Z2AOVW-DY9MVA74.js";import"./chunk-DU6HZSFF-Dvn7aEMW.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};