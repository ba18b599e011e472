import{r as e,t}from"./chunk-SHT3W25Y-B5-A56u_.js";import"./chunk-POPQ4Y6H-Di4gsEyl.js";import"./mermaid.core-CDk6yVvM.js";import"./chunk-F27PBJKO-P_eZAqhA.js";import"./chunk-L3NEJ4N5-BRkO-XEL.js";import"./chunk-OSK3NFVY-DvmW6pyj.js";import"./chunk-GVQU2GXP-DR7LU0A4.js";import"./chunk-4HAMMTFA-TyXpNgKN.js";import"./chunk-P2QGCYS3-CvnInKJp.js";import"./chunk-GMAD6QVW-ygAl2ywK.js";import"./chunk-PWAF6VOD-BZQ5wfeg.js";import"./chunk-75Z2AOVW-CbdalANP.js";import"./chunk-DU6HZSFF-at56OOSF.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};