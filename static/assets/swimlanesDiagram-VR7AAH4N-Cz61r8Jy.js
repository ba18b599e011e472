import{r as e,t}from"./chunk-SHT3W25Y-IwVJeNfs.js";import"./chunk-POPQ4Y6H-CC2U9mD2.js";import"./mermaid.core-Cj8IDCpH.js";import"./chunk-F27PBJKO-BswX_X2X.js";import"./chunk-L3NEJ4N5-B1w6vU8f.js";import"./chunk-OSK3NFVY-BpVdDLLr.js";import"./chunk-GVQU2GXP-BIDoka5i.js";import"./chunk-4HAMMTFA-CHjNIRvx.js";import"./chunk-P2QGCYS3-CnvaMrWv.js";import"./chunk-GMAD6QVW-Bw2ztlOO.js";import"./chunk-PWAF6VOD-CFl7jyDb.js";import"./chunk-75Z2AOVW-BFzgz04e.js";import"./chunk-DU6HZSFF-Bejonamv.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};