import{r as e,t}from"./chunk-SHT3W25Y-CplVXc24.js";import"./chunk-POPQ4Y6H-C5siTxsq.js";import"./mermaid.core-Bd-aw7Mb.js";import"./chunk-F27PBJKO-D45Zyc20.js";import"./chunk-L3NEJ4N5-C0fyayC4.js";import"./chunk-OSK3NFVY-kRLj9IzC.js";import"./chunk-GVQU2GXP-Drnus2id.js";import"./chunk-4HAMMTFA-C2crGORj.js";import"./chunk-P2QGCYS3-CZHA_1dT.js";import"./chunk-GMAD6QVW-lRgX16RI.js";import"./chunk-PWAF6VOD-CSsm04MV.js";import"./chunk-75Z2AOVW-BzF1QMRF.js";import"./chunk-DU6HZSFF-DI1__Wqv.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};