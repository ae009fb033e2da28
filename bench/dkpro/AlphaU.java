import java.io.*;
import java.util.*;
import org.dkpro.statistics.agreement.unitizing.*;

/** Reads cases from stdin: "case R L n" then n lines "rater label start end"; prints per case
 *  overall alpha and per label "label D_o D_e alpha" and the elapsed nanoseconds. */
public class AlphaU {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String line;
        PrintStream out = System.out;
        while ((line = in.readLine()) != null) {
            String[] h = line.trim().split(" ");
            int R = Integer.parseInt(h[1]); long L = Long.parseLong(h[2]); int n = Integer.parseInt(h[3]);
            long t0 = System.nanoTime();
            UnitizingAnnotationStudy study = new UnitizingAnnotationStudy(R, 0, L);
            for (int i = 0; i < n; i++) {
                String[] f = in.readLine().trim().split(" ");
                long s = Long.parseLong(f[2]), e = Long.parseLong(f[3]);
                study.addUnit(s, e - s, Integer.parseInt(f[0]), f[1]);
            }
            KrippendorffAlphaUnitizingAgreement a = new KrippendorffAlphaUnitizingAgreement(study);
            double overall = a.calculateAgreement();
            StringBuilder sb = new StringBuilder();
            for (Object c : study.getCategories()) {
                sb.append(" ").append(c).append(":").append(a.calculateCategoryAgreement(c));
            }
            long t1 = System.nanoTime();
            out.println(overall + " " + (t1 - t0) + sb);
        }
    }
}
