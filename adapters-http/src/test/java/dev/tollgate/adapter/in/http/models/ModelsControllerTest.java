package dev.tollgate.adapter.in.http.models;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ModelsControllerTest {

    @Test
    void aPlusInTheModelsPathIsAPlusNotASpace() {
        // Micronaut hands the variable over decoded as a form value would be ('+' as a space)
        assertEquals("t/a+b", ModelsController.literalPlus("/v1/models/t/a+b", "t/a b"));
        assertEquals("t/a+b c", ModelsController.literalPlus("/v1/models/t/a+b%20c", "t/a b c"));
        assertEquals("t/a+b", ModelsController.literalPlus("/v1/models/t/a+b/", "t/a b"));
        assertEquals("t/a+b", ModelsController.literalPlus("/v1/models/t/a%2Bb", "t/a+b"));
        assertEquals("t/a b", ModelsController.literalPlus("/v1/models/t/a%20b", "t/a b"));
        assertEquals("odd", ModelsController.literalPlus("/v1/models/odd", "odd"));
        // a path Micronaut read differently from this reading keeps Micronaut's
        assertEquals("x", ModelsController.literalPlus("/v1/models/y+z", "x"));
    }
}
