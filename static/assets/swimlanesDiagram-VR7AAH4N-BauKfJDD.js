import{r as e,t}from"./chunk-SHT3W25Y-BwdqaAjy.js";import"./chunk-POPQ4Y6H-B8oGbxLV.js";import"./mermaid.core-BxCw_aJT.js";import"./chunk-F27PBJKO-CgFWAVzA.js";import"./chunk-L3NEJ4N5-DkVp9-wO.js";import"./chunk-OSK3NFVY-C9Fzxv74.js";import"./chunk-GVQU2GXP-BhKSiS_i.js";import"./chunk-4HAMMTFA-BF4V_FxD.js";import"./chunk-P2QGCYS3-C6f1OC7S.js";import"./chunk-GMAD6QVW-BedFFrkN.js";import"./chunk-PWAF6VOD-BJqzyCyH.js";import"./chunk-75Z2AOVW-B3ufS3bu.js";import"./chunk-DU6HZSFF-DSLuWzpo.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};