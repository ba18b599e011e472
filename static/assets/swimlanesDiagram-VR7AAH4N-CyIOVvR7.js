import{r as e,t}from"./chunk-SHT3W25Y-BuvBYeAo.js";import"./chunk-POPQ4Y6H-DgomPpOq.js";import"./mermaid.core-B7a_wv9P.js";import"./chunk-F27PBJKO-BnDNmXrR.js";import"./chunk-L3NEJ4N5-B32Sytfd.js";import"./chunk-OSK3NFVY-BVCowVND.js";import"./chunk-GVQU2GXP-THLf22B1.js";import"./chunk-4HAMMTFA-1Uj5vrAZ.js";import"./chunk-P2QGCYS3-UKRPLmCI.js";import"./chunk-GMAD6QVW-B4Dy4F1b.js";import"./chunk-PWAF6VOD-Sq5BMgys.js";import"./chunk-75Z2AOVW-CtKF5sng.js";import"./chunk-DU6HZSFF-qsRiJApS.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};