import{r as e,t}from"./chunk-SHT3W25Y-Wm5EDEsW.js";import"./chunk-POPQ4Y6H-mJyz89Qp.js";import"./mermaid.core-D8Daa4_j.js";import"./chunk-F27PBJKO-WbTM55A8.js";import"./chunk-L3NEJ4N5-ClieiRye.js";import"./chunk-OSK3NFVY-PFVMJKXK.js";import"./chunk-GVQU2GXP-C9MIR6Yx.js";import"./chunk-4HAMMTFA-B_TZHkO8.js";import"./chunk-P2QGCYS3-C7GrO_8A.js";import"./chunk-GMAD6QVW-DbzNZOqx.js";import"./chunk-PWAF6VOD-KxIXWwk6.js";import"./chunk-75Z2AOVW-CqA3IfjV.js";import"./chunk-DU6HZSFF-BmW_ql__.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};