import{r as e,t}from"./chunk-SHT3W25Y-ydwRayol.js";import"./chunk-POPQ4Y6H-Bs9mWdYJ.js";import"./mermaid.core-CRWHPc-0.js";import"./chunk-F27PBJKO-BvID3voL.js";import"./chunk-L3NEJ4N5-OTu_2cPo.js";import"./chunk-OSK3NFVY-B24NjQA7.js";import"./chunk-GVQU2GXP-TmtzZfRt.js";import"./chunk-4HAMMTFA-BE0ZMI5S.js";import"./chunk-P2QGCYS3-MS1977Cp.js";import"./chunk-GMAD6QVW-BaeglhCU.js";import"./chunk-PWAF6VOD-EYFG9C-L.js";import"./chunk-75Z2AOVW-DLV-AolX.js";import"./chunk-DU6HZSFF-Bn7FSwlR.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};