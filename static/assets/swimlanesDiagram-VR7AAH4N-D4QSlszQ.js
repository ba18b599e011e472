import{r as e,t}from"./chunk-SHT3W25Y-Bnxm-hXO.js";import"./chunk-POPQ4Y6H-DyoQoeSp.js";import"./mermaid.core-DSq-o_Cr.js";import"./chunk-F27PBJKO-7i8W5cw7.js";import"./chunk-L3NEJ4N5-Bk_IY1vp.js";import"./chunk-OSK3NFVY-TV9yPvJs.js";import"./chunk-GVQU2GXP-BrrWG8YQ.js";import"./chunk-4HAMMTFA-CRhFLq8F.js";import"./chunk-P2QGCYS3-BHLjyIMm.js";import"./chunk-GMAD6QVW-CsgiXu9D.js";import"./chunk-PWAF6VOD-C5jv_RYp.js";import"./chunk-75Z2AOVW-DasFQHDW.js";import"./chunk-DU6HZSFF-BY3M59lu.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};