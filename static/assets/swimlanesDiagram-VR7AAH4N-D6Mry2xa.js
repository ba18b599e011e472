import{r as e,t}from"./chunk-SHT3W25Y-DHiY7icA.js";import"./chunk-POPQ4Y6H-DATFXTq-.js";import"./mermaid.core-EvJ8MOkq.js";import"./chunk-F27PBJKO-BvcMmf_r.js";import"./chunk-L3NEJ4N5-CcP74wI-.js";import"./chunk-OSK3NFVY-Cb0xLaTm.js";import"./chunk-GVQU2GXP-Cknt8AYz.js";import"./chunk-4HAMMTFA-CRmMs1ZT.js";import"./chunk-P2QGCYS3-BgHT7Aqv.js";import"./chunk-GMAD6QVW-DSj4hwtT.js";import"./chunk-PWAF6VOD-ylUDrp4R.js";import"./chunk-75Z2AOVW-BbuZcjlu.js";import"./chunk-DU6HZSFF-BJTd_zHM.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};