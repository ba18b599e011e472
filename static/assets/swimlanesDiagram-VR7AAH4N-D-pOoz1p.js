import{r as e,t}from"./chunk-SHT3W25Y-B5lPvCt2.js";import"./chunk-POPQ4Y6H-C_ayRvuP.js";import"./mermaid.core-Bx_TNbSt.js";import"./chunk-F27PBJKO-CldCyS9_.js";import"./chunk-L3NEJ4N5-QuDpY7fF.js";import"./chunk-OSK3NFVY-Ef-lX37R.js";import"./chunk-GVQU2GXP-CA8_8FTX.js";import"./chunk-4HAMMTFA-VGpHYURK.js";import"./chunk-P2QGCYS3-CL5mCNe9.js";import"./chunk-GMAD6QVW-DpuzfQCl.js";import"./chunk-PWAF6VOD-BvjmrhMt.js";import"./chunk-75Z2AOVW-8UahCXc7.js";import"./chunk-DU6HZSFF-BDTwxFDk.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};