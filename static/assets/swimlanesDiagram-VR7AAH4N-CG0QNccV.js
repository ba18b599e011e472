import{r as e,t}from"./chunk-SHT3W25Y-Dw4RZnv0.js";import"./chunk-POPQ4Y6H-BCLCm8nT.js";import"./mermaid.core-DZlJFnTF.js";import"./chunk-F27PBJKO-lN5k_Fcf.js";import"./chunk-L3NEJ4N5-B6sojSVj.js";import"./chunk-OSK3NFVY-CvoVvolB.js";import"./chunk-GVQU2GXP-BU-bFiKO.js";import"./chunk-4HAMMTFA-BcXF1KXh.js";import"./chunk-P2QGCYS3-D8WSMyku.js";import"./chunk-GMAD6QVW-Dw6YDH5-.js";import"./chunk-PWAF6VOD-CikR1Rbk.js";import"./chunk-75Z2AOVW-SQRlCldZ.js";import"./chunk-DU6HZSFF-DO5U_TQT.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};